"""What the magics put into a prompt: notebook variables, recent cells, the
last error and DataFrame summaries, each trimmed to a token budget."""
