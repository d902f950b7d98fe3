"""Third-party files the project ships as they are (vendor/), pinned: each npm package by
its tarball's sha512 (the registry's ``dist.integrity``), each file taken from it by its
Subresource Integrity hash, which the pages that load it carry as their ``integrity``
attribute, so that the browser itself refuses a file that changed. ``fetch`` downloads
and checks them again (``python -m harness.dashboard vendor``, ``python -m
harness.service.pages vendor``)."""

import base64
import hashlib
import io
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "vendor"
NPM = "https://registry.npmjs.org"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    tarball_sri: str   # the registry's dist.integrity of the tarball
    license: str       # the license file inside the tarball, vendored beside the code

    @property
    def dir(self):
        return f"{self.name}-{self.version}"

    @property
    def url(self):
        return f"{NPM}/{self.name}/-/{self.name.split('/')[-1]}-{self.version}.tgz"


def sri(data, algorithm="sha512"):
    """The Subresource Integrity value of ``data``, e.g. 'sha512-<base64>'."""
    return f"{algorithm}-{base64.b64encode(hashlib.new(algorithm, data).digest()).decode()}"


def _download(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def fetch(package, members, target):
    """Download ``package`` from npm, check its tarball against its pin, and write each of
    ``members`` ({file in the tarball: its SRI, or None}) and its license into
    ``target``/<name>-<version>/, each checked against its own pin."""
    tarball = _download(package.url)
    if sri(tarball) != package.tarball_sri:
        raise ValueError(f"{package.url}: sha512 differs from the pinned {package.tarball_sri}")
    out = Path(target) / package.dir
    out.mkdir(parents=True, exist_ok=True)
    members = dict(members)
    members.setdefault(package.license, None)
    with tarfile.open(fileobj=io.BytesIO(tarball)) as tar:
        for member, expected in members.items():
            data = tar.extractfile(f"package/{member}").read()
            if expected and sri(data, expected.split("-")[0]) != expected:
                raise ValueError(f"{package.url}: {member} differs from the pinned {expected}")
            (out / Path(member).name).write_bytes(data)
    print(f"{package.dir}: {', '.join(members)}")
