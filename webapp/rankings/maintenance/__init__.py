"""List maintenance: building, placing, ordering, indexing and counting the ranked lists.

The public pages read what this package writes; nothing here imports a page."""
