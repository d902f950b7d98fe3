"""How every command's measurements reach the results store, and a comparison service
(docs/service.md): ``arguments`` the flags each recording command takes (light, for the
command line's parser), ``record`` storing and submitting what a command measured."""
