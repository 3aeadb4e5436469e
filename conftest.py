"""The fixtures every test folder shares (`tests/` and the evaluator's own tests in `eval/tests/`)."""

pytest_plugins = ["testing.fixtures"]
