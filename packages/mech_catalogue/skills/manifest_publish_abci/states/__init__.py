"""The rounds of the PublishManifestAbciApp, one module per round."""
