"""The arena: players given as specs, matches and tournaments between them, report material."""
