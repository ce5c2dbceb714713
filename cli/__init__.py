"""creepnet.cli"""
