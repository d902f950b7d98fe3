"""The comparison service (docs/service.md): ``app`` makes the FastAPI application over a
store, ``api`` its JSON API under /api/v1, ``pages`` its pages in the browser, ``auth``
who may read and write, ``client`` what sends runs to it (``harness submit``) and keeps
what it could not send; ``command`` is ``python -m harness serve`` and ``submit``;
``scale`` measures it with a million results stored."""
