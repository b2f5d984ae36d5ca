"""An HTTP client connection that stops reading a response body at a cap."""

from aea.configurations.base import PublicId

PUBLIC_ID = PublicId.from_str("mech_catalogue/capped_http_client:0.1.0")
