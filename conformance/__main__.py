"""`python -m ascendc_conformance` is the `ascendc-conformance` command."""
from ascendc_conformance.cli.main import main

raise SystemExit(main())
