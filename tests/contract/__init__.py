"""The shared contract suite: every test runs against every backend."""
