"""creepnet.node"""
