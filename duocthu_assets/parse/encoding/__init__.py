"""Text in the wrong code page or font encoding: Vietnamese typed in TCVN3
or VNI, and mojibake, recognised and read back or named."""
