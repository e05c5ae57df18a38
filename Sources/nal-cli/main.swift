print("nal-cli")
