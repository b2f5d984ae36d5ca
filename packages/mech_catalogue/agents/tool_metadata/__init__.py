"""The tool metadata agent: the chained tool metadata skill with its connections."""
