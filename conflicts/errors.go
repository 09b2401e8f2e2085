package conflicts
