"""The ``ryvem`` command line: a thin typer shell over ``ryvem.application.service``."""
