"""The catalogue model and its vocabulary: mechs, tools, argument types, problems."""
