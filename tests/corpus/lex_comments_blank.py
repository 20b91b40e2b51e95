#!/usr/bin/env python3
# leading comment



def f():

    # comment in body

    x = 1


    return x
# trailing comment without newline at end
