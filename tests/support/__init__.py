"""What the tests share: document builders, sample rows, the servers of the
scale and UI tests, and where the repository and the corpus are. Fixtures
live in conftest.py files; test modules import helpers only from here."""
