pytest_plugins = ["warpsim.testing"]
