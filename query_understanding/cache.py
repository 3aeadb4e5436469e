"""Answers of the language-model path kept in memory, so a repeated conversation costs no request."""

from __future__ import annotations

import threading
from collections import OrderedDict

from query_understanding.understanding import Understanding

CacheKey = tuple[tuple[str, ...], str, str, str, str]


class UnderstandingCache:
    """Least recently used entries go first; safe to share between the threads of one server."""

    def __init__(self, max_entries: int = 512) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[CacheKey, Understanding] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: CacheKey) -> Understanding | None:
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key]

    def put(self, key: CacheKey, understanding: Understanding) -> None:
        with self._lock:
            self._entries[key] = understanding
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


SHARED_CACHE = UnderstandingCache()
