"""pdf/audit"""
