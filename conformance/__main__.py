"""`python -m conformance` is the `ascendc-conformance` command."""
from conformance.cli import main

raise SystemExit(main())
