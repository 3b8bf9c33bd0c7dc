"""The shared contract suite (``suite/``) and one subclass of it per backend (``test_*.py``)."""
