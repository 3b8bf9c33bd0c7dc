"""ryvem's benchmark harness (outside the package): `make bench` or `python -m bench`."""
