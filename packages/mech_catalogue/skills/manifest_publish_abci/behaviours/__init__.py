"""The behaviours of the PublishManifestAbciApp, one module per behaviour."""
