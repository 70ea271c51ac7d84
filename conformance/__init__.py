"""ascendc-conformance: the case/result data model, target adapters, the pytest plugin and the CLI."""

__version__ = "0.1.0"
