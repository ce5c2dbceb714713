"""creepnet.cli.racer"""
