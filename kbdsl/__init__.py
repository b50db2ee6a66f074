"""kbdsl: Kingdom Builder with every piece of content written as data."""
