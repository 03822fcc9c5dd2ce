"""Bridges to other array libraries, built on DLPack (see ``cowarray._dlpack``).

Each bridge is a submodule that imports its library only when called:
``import cowarray`` and ``import cowarray.interop`` never import torch.
"""
