"""placeholder"""


def ldl_factor(*a, **k):
    raise NotImplementedError


ldl_factor_ex = ldl_solve = ldl_factor
