"""From a snapshot and fetch results to the next catalogue; what each agent keeps and exposes."""
