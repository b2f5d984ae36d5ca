"""Reading manifests: strict decoding, the v1 JSON Schema, parsing every shape seen in the wild."""
