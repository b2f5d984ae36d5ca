"""An HTTP client connection that stops reading a response body at a cap."""
