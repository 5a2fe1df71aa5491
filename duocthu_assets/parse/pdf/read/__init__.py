"""pdf/read"""
