print("peerbench: under construction")
