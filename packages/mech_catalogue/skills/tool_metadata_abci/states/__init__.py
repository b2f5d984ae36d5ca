"""The rounds of the ToolMetadataAbciApp, one module per round."""
