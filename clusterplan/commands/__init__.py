"""The command-line commands, one group a module; cli.py assembles them."""
