"""creepnet.cli.creeper"""
