"""A real registry for the image tests: Debian's docker-registry (the CNCF distribution
server) on loopback, test images pushed to it by skopeo, and a front that adds what it does
not do itself (bearer tokens, tag-list pages)."""
