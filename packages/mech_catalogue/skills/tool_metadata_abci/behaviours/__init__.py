"""The behaviours of the ToolMetadataAbciApp, one module per behaviour."""
