s1 = 'single'
s2 = "double"
s3 = '''triple single'''
s4 = """triple double"""
s5 = 'it\'s'
s6 = "say \"hi\""
s7 = "it's"
s8 = 'say "hi"'
s9 = 'both \' and "'
s10 = "tab\there\nnewline\rreturn\\backslash"
s11 = "\a\b\f\v\0\1\12\123\1234"
s12 = "\x41\x7f\x80\xff"
s13 = "\u00e9\u4e2d\U0001F600\u2028\ufeff\u200b\ud800"
s14 = "invalid \d \q \[ escapes kept"
s15 = r"raw \n \t \d \\"
s16 = R'raw \' quote'
s17 = u"unicode kind"
s18 = U"upper unicode"
s19 = b"bytes \x00\xff\n\t\\ '"
s20 = B'BYTES "'
s21 = br"raw\bytes" + rb'\x00' + Rb"x" + bR'y' + BR"z" + rB'w'
s22 = "implicit" "concatenation" 'of' """strings"""
s23 = b"bytes" b'concat'
s24 = u"first u" " then plain"
s25 = "line \
continuation inside string"
s26 = """multi
line
string with 'quotes' and "double" quotes"""
s27 = 'é中😀'
s28 = "control \x01\x1f\x7f chars"
s29 = ''
s30 = b''
s31 = "\
"
s32 = '\'"'
s33 = "\"'"
s34 = "caf\u0301e non-printable \x9f \xa0 \xad \u0378"
s35 = b"\777\1\01"
s36 = ("parenthesized"
       "implicit"
       f"{s1}")
