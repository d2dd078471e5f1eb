"""The version of kinarow, written in this one place: ``kinarow.__version__``, the build (pyproject.toml reads it
here) and the ``created_by`` of every certificate (:func:`kinarow.proofs.created_by`) take it from this module,
which imports nothing, so that the checkers name the version without importing the package's front."""

__version__ = "0.1.0"
