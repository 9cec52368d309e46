import AsyncWebImage

print("awi-bench: scenarios are being written")
