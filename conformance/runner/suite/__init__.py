"""The conformance suite itself: collected by the plugin when --ascendc-target is given."""
