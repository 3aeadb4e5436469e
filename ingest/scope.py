"""Which URLs a crawl may visit, and when two spellings of a URL name the same page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

TRACKING_PARAMETER = re.compile(r"^(utm_\w+|fbclid|gclid|msclkid|mc_cid|mc_eid|_ga|_gl)$", re.IGNORECASE)


def clean_url(url: str) -> str:
    """The URL to request: without its fragment and without tracking parameters, the path as written."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    kept = urlencode([(name, value) for name, value in query if not TRACKING_PARAMETER.match(name)])
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", kept, ""))


def page_key(url: str) -> str:
    """One spelling per page, for de-duplication: a cleaned URL with sorted parameters and no trailing slash."""
    parts = urlsplit(clean_url(url))
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") or "/", query, ""))


def site_of(url: str) -> str:
    """The host (and port) of a URL; `www.` is the same site."""
    return urlsplit(url).netloc.lower().removeprefix("www.")


@dataclass(frozen=True)
class Scope:
    """A seed's site and the path under which its guides live."""

    site: str
    path_prefix: str

    @classmethod
    def of_seed(cls, seed: str) -> Scope:
        return cls(site_of(seed), urlsplit(seed).path.rstrip("/"))

    def contains(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or site_of(url) != self.site:
            return False
        path = parts.path.rstrip("/")
        return path == self.path_prefix or path.startswith(self.path_prefix + "/")
