"""Fakes and local servers that the tests and the evaluator's fault scenarios stand in for the outside world with:
an OpenAI-compatible endpoint, a web site, a `chroma run` server, saved guide pages, searches from many threads."""
