"""Drop-in shapes of other libraries' APIs over fastblock (see pycryptodome)."""
