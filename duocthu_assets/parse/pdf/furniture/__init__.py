"""pdf/furniture"""
