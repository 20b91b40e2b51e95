def tabs():
	if True:
		return 1
	else:
		return 2


class T:
	def m(self):
		x = [
	1,
			2]
		return x
