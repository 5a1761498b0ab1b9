"""Container image references as text: parsed, matched against a tag pattern, checked against
the catalog's allowed repositories. No registry and no catalog: the catalog's loader
validates its images with these, and `generator/images/` (digests, registries, PR builds)
stands above the catalog."""
