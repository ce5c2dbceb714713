"""creepnet.engine"""
