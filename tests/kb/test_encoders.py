"""The real offline models: loaded from the installed wheels, and run with threads that sleep between runs."""

from __future__ import annotations

import numpy as np

from kb import embeddings, multilingual

SPINNING = "session.intra_op.allow_spinning"


def test_both_models_let_their_threads_sleep_between_runs_so_neither_slows_the_other():
    # a French question runs both models in turn on two cores: spinning threads of one took the other's cores
    for session in (embeddings._session(), multilingual._session()):
        assert session.get_session_options().get_session_config_entry(SPINNING) == "0"


def test_a_question_and_its_french_telling_come_out_as_unit_vectors():
    english = embeddings.embed_queries(["My flight was cancelled, what can I get?"])
    both = multilingual.embed_multilingual(["My flight was cancelled", "Mon vol a été annulé"])
    assert english.shape == (1, 384) and both.shape == (2, multilingual.DIMENSIONS)
    assert np.allclose(np.linalg.norm(english, axis=1), 1, atol=1e-5)
    assert np.allclose(np.linalg.norm(both, axis=1), 1, atol=1e-5)
    assert float(both[0] @ both[1]) > 0.7  # the same thing said in two languages lands close
