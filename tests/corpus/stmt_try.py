try:
    pass
except:
    pass

try:
    x = 1 / 0
except ZeroDivisionError as e:
    print(e)
except (TypeError, ValueError):
    raise
except Exception as exc:
    raise RuntimeError("wrapped") from exc
else:
    print("fine")
finally:
    print("done")

try:
    import missing
finally:
    pass

try:
    raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
except* ValueError as eg:
    print(eg)
except* (TypeError, KeyError):
    pass
else:
    pass
finally:
    pass


def f():
    try:
        return 1
    except Exception:
        return 2
    finally:
        print("cleanup")
