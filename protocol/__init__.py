"""creepnet.protocol"""
