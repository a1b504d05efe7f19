"""Abstract op interfaces: structured ops (maps, iterators, loop ranges), destination
style, loop lowering, and `TilingInterface`. Dialects implement them; transforms use them.
"""
