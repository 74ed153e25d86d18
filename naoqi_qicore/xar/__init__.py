"""Choregraphe behavior model and its XML (.xar) reading and writing."""
