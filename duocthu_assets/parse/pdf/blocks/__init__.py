"""pdf/blocks"""
